"""`schemarouter route`: the allow-set for one request, with scores and reasons (or the no-route verdict)."""

from __future__ import annotations

import argparse
from typing import Any

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .._defaults import DEFAULT_K
from ..retrieval._abstention import RetrievalAbstentionPolicy
from ..retrieval._hybrid import HybridRetriever
from ..retrieval._results import Candidate, Retrieval
from ..visibility._allow_set import AllowSet
from ..visibility._visibility import Visibility
from ._common import (
    SHOWN_SKIPS,
    add_semantic_argument,
    add_source_arguments,
    add_verbose_argument,
    count,
    emit_json,
    encoder_name,
    keep_routes_whole,
    load_router,
    mode_text,
    print_skipped,
    printable,
    require_tools,
    stdout,
)

__all__ = ["EXAMPLE", "register"]

EXAMPLE = (
    "example (the fixture server that ships with schemarouter-conformance):\n"
    '  schemarouter route --stdio "python -m schemarouter_conformance.fixture_server" "delete customer c-200"'
)


def _candidate_json(cand: Candidate) -> dict[str, Any]:
    return {
        "route": cand.route,
        "name": cand.name,
        "score": cand.score,
        "identifier_score": cand.identifier_score,
        "rank_score": cand.rank_score,
        "kept": cand.kept,
        "reason": cand.reason,
        "signals": [
            {"term": s.term, "field": s.field, "weight": s.weight, "read_as": s.read_as} for s in cand.signals
        ],
    }


def route_to_json(
    allow: AllowSet,
    retrieval: Retrieval,
    mode: str = "lexical",
    skipped: int = 0,
    unweighed: tuple[str, ...] = (),
    encoder: str | None = None,
    unencoded: int = 0,
) -> dict[str, Any]:
    """`mode`: `lexical` or `hybrid`; `encoder`: the hybrid mode's encoder (None in lexical mode);
    `skipped`: tools the catalog could not load (`schemarouter catalog` lists them);
    `unweighed`: the request's words past the first 64, which routing did not weigh (counted);
    `unencoded`: in hybrid mode, the request's characters past those the encoder reads."""
    return {
        "query": allow.query,
        "catalog_version": allow.catalog_version,
        "outcome": allow.outcome,
        "no_route": allow.no_route,
        "reason": allow.reason,
        "names": list(allow.names),
        "routes": list(allow.routes),
        "shared_names": [list(group) for group in allow.shared_names],
        "decisions": [
            {"route": d.route, "visible": d.visible, "reason": d.reason, "detail": d.detail, "score": d.score}
            for d in allow.decisions
        ],
        "candidates": [_candidate_json(c) for c in retrieval.reported],
        "matched_tools": retrieval.matched,
        "mode": mode,
        "encoder": encoder,
        "skipped_tools": skipped,
        "unweighed_words": len(unweighed),
        "unencoded_chars": unencoded,
    }


def _evidence_text(cand: Candidate | None) -> str:
    if cand is None:
        return ""
    terms: dict[str, list[str]] = {}
    weighed: set[str] = set()
    semantic = ""
    for signal in cand.signals:
        if signal.field == "semantic" and not signal.term:
            semantic = f"cosine {signal.weight:.2f} (semantic)"
            continue
        word = signal.term if signal.read_as is None else f"{signal.term}->{signal.read_as}"
        terms.setdefault(word, []).append(signal.field)
        if signal.weight > 0.0:
            weighed.add(word)
    # a loose match (a prefix) ranks but carries no evidence: say so, or it reads as a reason to route
    lexical = [
        f"{term} ({'/'.join(fields)}{'' if term in weighed else ', no evidence'})"
        for term, fields in terms.items()
    ]
    return ", ".join([*lexical, semantic] if semantic else lexical)


async def run(args: argparse.Namespace) -> int:
    router = await load_router(args)
    require_tools(router.catalog)
    policy = RetrievalAbstentionPolicy(min_score=args.min_score) if args.min_score is not None else None
    visibility = Visibility(router, k=args.k, abstention=policy, blocked=args.block, allowed=args.allow)
    allow = visibility.allow_set(args.query)
    retrieval = router.retrieve(args.query, args.k, abstention=policy)
    unweighed = router.index.analyzer.unweighed_words(args.query)
    retriever = router.retriever
    unencoded = retriever.unencoded_chars(args.query) if isinstance(retriever, HybridRetriever) else 0
    if args.json:
        emit_json(
            route_to_json(
                allow,
                retrieval,
                router.mode,
                len(router.catalog.skipped),
                unweighed,
                encoder_name(router),
                unencoded,
            )
        )
        return 0
    by_route = {c.route: c for c in retrieval.reported}
    if allow.no_route:
        stdout.print(
            f"[bold]no route[/] for {escape(printable(repr(args.query)))}: {escape(allow.reason)}",
            markup=True,
        )
    elif allow.outcome == "uncertain":
        stdout.print(
            f"[bold]uncertain[/] for {escape(printable(repr(args.query)))}: no tool has the evidence "
            f"for a confident route; offered with weak evidence: {escape(printable(', '.join(allow.names)))}",
            markup=True,
        )
    table = Table(title=Text(f"query: {printable(args.query)}"), title_justify="left")
    for column, justify in (
        ("route", "left"),
        ("visible", "center"),
        ("score", "right"),
        ("identifier", "right"),
        ("reason", "left"),
        ("evidence", "left"),
    ):
        table.add_column(column, justify=justify)  # pyright: ignore[reportArgumentType]
    keep_routes_whole(table, (decision.route for decision in allow.decisions))
    for decision in allow.decisions:
        cand = by_route.get(decision.route)
        table.add_row(  # routes, details and query words: Text, not markup, control characters escaped
            Text(printable(decision.route)),
            "yes" if decision.visible else "no",
            "-" if decision.score is None else f"{decision.score:.3f}",
            "-" if cand is None else f"{cand.identifier_score:.3f}",
            Text(
                printable(
                    decision.reason
                    if decision.detail in ("", decision.reason)
                    else f"{decision.reason}: {decision.detail}"
                )
            ),
            Text(printable(_evidence_text(cand))),
        )
    if allow.decisions:
        stdout.print(table)
    stdout.print(
        f"outcome {allow.outcome}: {len(allow.names)} offered of {count(len(router.catalog), 'tool')} (k={args.k}); "
        f"{retrieval.matched} {'competed' if isinstance(retriever, HybridRetriever) else 'matched a query word'}; "
        f"catalog {allow.catalog_version[:12]}; "
        f"mode {mode_text(router)}"
    )
    for group in allow.shared_names:
        stdout.print(
            f"[yellow]one tool name from {len(group)} sources:[/] {escape(printable(', '.join(group)))} "
            "(the model cannot tell them apart by name; execution refuses to pick one unless the route is named)",
            markup=True,
        )
    if unweighed:
        stdout.print(
            f"[yellow]{len(unweighed)} words after the request's first 64 were not weighed[/] "
            f"(from {escape(printable(repr(unweighed[0])))}): route the user's latest message, not a whole transcript",
            markup=True,
        )
    if unencoded:
        stdout.print(
            f"[yellow]{unencoded} characters after the request's first {len(args.query) - unencoded} were "
            "not read by the encoder[/] (hybrid mode encodes the start of a request)",
            markup=True,
        )
    if router.catalog.skipped:
        stdout.print(f"[yellow]{count(len(router.catalog.skipped), 'tool')} skipped at load:[/]", markup=True)
        print_skipped(router.catalog.skipped, SHOWN_SKIPS)
    return 0


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "route",
        help="show the allow-set for a request, with scores and reasons, or the no-route verdict",
        description="Show which tools one request would be offered (the allow-set, best first), "
        "with each tool's score, reason and the request words behind it, or the no-route verdict.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source_arguments(parser)
    add_verbose_argument(parser)
    parser.add_argument("query", help="the request to route")
    parser.add_argument(
        "-k", "--k", type=int, default=DEFAULT_K, help=f"allow-set size (default {DEFAULT_K})"
    )
    parser.add_argument(
        "--min-score", type=float, default=None, help="abstention threshold (see `calibrate`)"
    )
    parser.add_argument("--block", action="append", default=[], metavar="TOOL", help="never show this tool")
    parser.add_argument(
        "--allow", action="append", default=None, metavar="TOOL", help="only ever route these"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    add_semantic_argument(parser)
    parser.set_defaults(handler=run)
