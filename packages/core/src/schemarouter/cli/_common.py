"""Shared CLI plumbing: how a command names its tool sources, and how it prints."""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import re
import shlex
import sys
import time
from collections.abc import Iterable, Sequence
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from .._router import SchemaRouter
from ..catalog._catalog import Catalog, SkippedTool
from ..catalog._mcp import McpSource, check_url
from ..errors import UserError
from ..retrieval._hybrid import HybridRetriever

__all__ = [
    "SHOWN_SKIPS",
    "add_semantic_argument",
    "add_verbose_argument",
    "add_source_arguments",
    "emit_json",
    "count",
    "human_size",
    "load_router",
    "print_skipped",
    "printable",
    "require_tools",
    "skip_text",
    "stderr",
    "stdout",
]

logger = logging.getLogger("schemarouter.cli")

# Markup and emoji codes are off: most of what is printed comes from users and servers (queries,
# tool names, skip details), and `[/]` or `:smile:` in them must print as written. Styled lines
# pass `markup=True` and escape whatever they interpolate (`rich.markup.escape`).
stdout = Console(
    highlight=False, markup=False, emoji=False, soft_wrap=False, width=None if sys.stdout.isatty() else 160
)
stderr = Console(stderr=True, highlight=False, markup=False, emoji=False, soft_wrap=True)

# C0 controls (ESC starts every terminal escape sequence), DEL, C1 controls (U+009B is a
# one-character CSI), line and paragraph separators, and the bidirectional overrides and
# isolates that can make a name read differently from what it is.
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_CONTROL_KEEPING_LINES = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(match: re.Match[str]) -> str:
    char = match.group()
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every control character written as an escape (`\\x1b`, `\\n`, `\\u202e`).

    Tool names, descriptions, details and requests come from servers and users; printed raw,
    an escape sequence in one of them would drive the reader's terminal (clear the screen,
    retitle the window, hide the text that follows). Human output passes everything it did not
    write itself through here; JSON output is escaped by the encoder. `keep_newlines` leaves
    line breaks alone, for messages of several lines.
    """
    pattern = _CONTROL_KEEPING_LINES if keep_newlines else _CONTROL
    return pattern.sub(_escaped, text)


def add_verbose_argument(parser: argparse.ArgumentParser, default: Any = argparse.SUPPRESS) -> None:
    """`-v` / `--verbose`, on the top parser (default 0) and on every subcommand (no default of
    its own, so that `schemarouter -v route ...` and `schemarouter route -v ...` both count)."""
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=default,
        help="print what SchemaRouter is doing on stderr (-v: INFO, -vv: DEBUG)",
    )


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("tool sources (repeatable; at least one)")
    group.add_argument(
        "--stdio",
        action="append",
        default=[],
        metavar="COMMAND",
        help="start an MCP server with this command line and talk to it over stdio (it sees only a few "
        "of your environment variables: see --env)",
    )
    group.add_argument(
        "--env",
        action="append",
        default=[],
        type=_environment_entry,
        metavar="NAME=VALUE",
        help="set an environment variable in every --stdio server (repeatable); --env NAME passes your "
        f"own value of NAME. Otherwise a --stdio server inherits only {', '.join(SAFE_INHERITED)} "
        "(the MCP SDK's safe default on POSIX; Windows has its own list): API keys and other "
        "secrets reach it only when passed with --env",
    )
    group.add_argument(
        "--url", action="append", default=[], metavar="URL", help="an MCP server's streamable HTTP endpoint"
    )
    group.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="FILE",
        help="a JSON file of tool definitions (OpenAI, Anthropic, Bedrock, Gemini or MCP format; "
        "routing only, nothing runs)",
    )
    group.add_argument(
        "--name",
        action="append",
        default=[],
        metavar="NAME",
        help="source names, given to the --stdio sources, then --url, then --tools, in order "
        "(default: derived from the command, the URL or the file name)",
    )
    parser.add_argument("--timeout", type=_seconds, default=20.0, help="seconds per server (default 20)")


SAFE_INHERITED = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
"""What the MCP SDK passes of the caller's environment to a stdio server on POSIX systems
(`mcp.client.stdio.get_default_environment`); named here for `--help`, which must not import
the SDK (it takes most of a second)."""


def _environment_entry(text: str) -> tuple[str, str]:
    """One `--env` value, `NAME=VALUE` or `NAME` (the caller's own value of NAME), as a pair.

    Errors name the variable, never its value: a value is often a secret.
    """
    name, equals, value = text.partition("=")
    if not name:
        raise argparse.ArgumentTypeError("expected NAME=VALUE or NAME: the variable name is missing")
    if "\0" in name or any(char.isspace() for char in name):
        raise argparse.ArgumentTypeError(
            f"{name!r} is not a variable name: expected NAME=VALUE or NAME, without spaces"
        )
    if not equals:
        if name not in os.environ:
            raise argparse.ArgumentTypeError(
                f"{name} is not set in this environment; give its value with --env {name}=VALUE"
            )
        value = os.environ[name]
    if "\0" in value:
        raise argparse.ArgumentTypeError(f"the value of {name} holds a NUL character")
    return name, value


def _environment_from(args: argparse.Namespace) -> dict[str, str] | None:
    """The variables `--env` sets for the `--stdio` servers; None (the SDK's safe default) without it."""
    environment: dict[str, str] = {}
    for name, value in args.env:
        if name in environment:
            raise UserError(f"--env {name} is given more than once")
        environment[name] = value
    if environment and not args.stdio:
        raise UserError("--env sets variables for --stdio servers, and no --stdio server is named")
    return environment or None


def _seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse reports anything else as misuse)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value <= 0.0:
        raise argparse.ArgumentTypeError(f"must be a positive, finite number of seconds, got {text!r}")
    return value


def _sources_from(args: argparse.Namespace) -> tuple[list[McpSource], list[Catalog]]:
    """The MCP servers and the tool-definition files the arguments name, with their names."""
    names: list[str] = list(args.name)
    environment = _environment_from(args)
    servers: list[McpSource] = []
    for command_line in args.stdio:
        try:
            parts = shlex.split(command_line)
        except ValueError as exc:  # an unbalanced quote or a trailing backslash
            raise UserError(f"--stdio {command_line!r} is not a valid command line: {exc}") from None
        if not parts:
            raise UserError("--stdio needs a command")
        name = names.pop(0) if names else None
        servers.append(McpSource.stdio(parts[0], parts[1:], env=environment, name=name, timeout=args.timeout))
    for url in args.url:
        try:
            check_url(url)  # the source's own check, said as misuse of --url
        except UserError as exc:
            raise UserError(f"--url {exc}") from None
        name = names.pop(0) if names else None
        servers.append(McpSource.http(url, name=name, timeout=args.timeout))
    files = [Catalog.from_file(path, names.pop(0) if names else None) for path in args.tools]
    if not servers and not files:
        raise UserError("name at least one tool source: --stdio COMMAND, --url URL or --tools FILE")
    if names:
        raise UserError("more --name values than sources")
    return servers, files


def add_semantic_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--semantic",
        action="store_true",
        help="hybrid mode: fuse a local semantic scorer with the lexical index (schemarouter-core[semantic])",
    )


async def load_router(args: argparse.Namespace) -> SchemaRouter:
    servers, files = _sources_from(args)
    for file in files:
        logger.info(
            "read %s from a definitions file as source %r", count(len(file), "tool"), _source_of(file)
        )
    for server in servers:
        logger.info("asking %s for its tools (timeout %g s)", server.label, server.timeout)
    started = time.perf_counter()
    router = await SchemaRouter.from_sources(*servers)
    if servers:
        elapsed = time.perf_counter() - started
        logger.info("%s answered tools/list in %.2f s", count(len(servers), "MCP server"), elapsed)
    if files:
        router = SchemaRouter(Catalog.merge(router.catalog, *files), sources=router.sources.values())
    catalog = router.catalog
    logger.info(
        "catalog %s: %s, %d skipped, %s cut short",
        catalog.version[:12],
        count(len(catalog), "tool"),
        len(catalog.skipped),
        count(len(catalog.cut_short), "source"),
    )
    if getattr(args, "semantic", False):
        started = time.perf_counter()
        router = router.with_semantic()
        logger.info("hybrid mode: tool vectors built in %.2f s", time.perf_counter() - started)
    return router


def human_size(size: int) -> str:
    """`512 B`, `19.2 KiB`, `11.1 MiB`, `1.5 GiB`: a size in the unit that reads best."""
    if size < 1024:
        return f"{size} B"
    for unit, scale in (("KiB", 2**10), ("MiB", 2**20)):
        if round(size / scale, 1) < 1024:
            return f"{size / scale:.1f} {unit}"
    return f"{size / 2**30:.1f} GiB"


def count(number: int, noun: str) -> str:
    """`1 tool`, `2 tools`, `0 tools`."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _source_of(catalog: Catalog) -> str:
    sources = sorted({cap.source for cap in catalog} | {skip.source for skip in catalog.skipped})
    return ", ".join(sources) or "(no tools)"


def skip_text(skip: SkippedTool) -> str:
    """`source:name — reason: detail`, control characters escaped."""
    return printable(f"{skip.source}:{skip.name or '(unnamed)'} — {skip.reason}: {skip.detail}")


SHOWN_SKIPS = 10
"""Skipped tools `route` lists before it refers to `schemarouter catalog` for the rest."""


def print_skipped(skipped: Sequence[SkippedTool], limit: int | None = None) -> None:
    """One line per skipped tool (`skipped source:name — reason: detail`); past `limit` lines,
    one more saying how many were left out and where to see them."""
    shown = skipped if limit is None else skipped[:limit]
    for skip in shown:
        stdout.print(f"[yellow]skipped[/] {escape(skip_text(skip))}", markup=True, soft_wrap=True)
    if len(skipped) > len(shown):
        stdout.print(f"... and {len(skipped) - len(shown)} more (`schemarouter catalog` lists them all)")


def require_tools(catalog: Catalog) -> None:
    """A `UserError` when `catalog` has no tool: nothing can be routed or calibrated over it. The
    message says why each tool of the sources was skipped (at most `SHOWN_SKIPS`)."""
    if len(catalog):
        return
    skipped = catalog.skipped
    if not skipped:
        raise UserError("the catalog is empty: the sources list no tool, so none can be routed")
    lines = [f"  {skip_text(skip)}" for skip in skipped[:SHOWN_SKIPS]]
    if len(skipped) > SHOWN_SKIPS:
        lines.append(f"  ... and {len(skipped) - SHOWN_SKIPS} more (`schemarouter catalog` lists them all)")
    raise UserError(
        f"the catalog is empty: {count(len(skipped), 'tool')} skipped at load, none left to route:\n"
        + "\n".join(lines)
    )


def keep_routes_whole(table: Table, routes: Iterable[str]) -> None:
    """The table's first column holds routes: it gets the width of the longest (up to 60) and
    wraps a longer one, never cutting it short with an ellipsis, which could hide which tool a
    row is about (`fixture:delete_customer` and `fixture:delete_customer_data` alike)."""
    column = table.columns[0]
    column.overflow = "fold"
    column.min_width = min(60, max((len(printable(route)) for route in routes), default=5))


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False) + "\n")


def encoder_name(router: SchemaRouter) -> str | None:
    """The hybrid mode's encoder, or None for a lexical router."""
    retriever = router.retriever
    return retriever.encoder_name if isinstance(retriever, HybridRetriever) else None


def mode_text(router: SchemaRouter) -> str:
    """`lexical`, or `hybrid (<encoder>)`: what a terminal reader is told."""
    encoder = encoder_name(router)
    return "lexical" if encoder is None else f"hybrid ({encoder})"
