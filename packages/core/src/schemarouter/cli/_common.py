"""Shared CLI plumbing: how a command names its tool sources, and how it prints."""

from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from typing import Any

from rich.console import Console

from .._catalog import Catalog
from .._mcp import McpSource
from .._router import SchemaRouter
from ..errors import UserError

__all__ = ["add_semantic_argument", "add_source_arguments", "emit_json", "load_router", "stderr", "stdout"]

# Markup and emoji codes are off: most of what is printed comes from users and servers (queries,
# tool names, skip details), and `[/]` or `:smile:` in them must print as written. Styled lines
# pass `markup=True` and escape whatever they interpolate (`rich.markup.escape`).
stdout = Console(
    highlight=False, markup=False, emoji=False, soft_wrap=False, width=None if sys.stdout.isatty() else 160
)
stderr = Console(stderr=True, highlight=False, markup=False, emoji=False, soft_wrap=True)


def add_source_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("tool sources (repeatable; at least one)")
    group.add_argument(
        "--stdio",
        action="append",
        default=[],
        metavar="COMMAND",
        help="start an MCP server with this command line and talk to it over stdio",
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
    servers: list[McpSource] = []
    for command_line in args.stdio:
        try:
            parts = shlex.split(command_line)
        except ValueError as exc:  # an unbalanced quote or a trailing backslash
            raise UserError(f"--stdio {command_line!r} is not a valid command line: {exc}") from None
        if not parts:
            raise UserError("--stdio needs a command")
        name = names.pop(0) if names else None
        servers.append(McpSource.stdio(parts[0], parts[1:], name=name, timeout=args.timeout))
    for url in args.url:
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
    router = await SchemaRouter.from_sources(*servers)
    if files:
        router = SchemaRouter(Catalog.merge(router.catalog, *files), sources=router.sources.values())
    return router.with_semantic() if getattr(args, "semantic", False) else router


def emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False) + "\n")
