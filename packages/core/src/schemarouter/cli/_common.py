"""Shared CLI plumbing: how a command names its tool sources, and how it prints."""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import sys
from typing import Any

from rich.console import Console

from .._router import SchemaRouter
from ..catalog._catalog import Catalog
from ..catalog._mcp import McpSource
from ..errors import UserError
from ..retrieval._hybrid import HybridRetriever

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


def encoder_name(router: SchemaRouter) -> str | None:
    """The hybrid mode's encoder, or None for a lexical router."""
    retriever = router.retriever
    return retriever.encoder_name if isinstance(retriever, HybridRetriever) else None


def mode_text(router: SchemaRouter) -> str:
    """`lexical`, or `hybrid (<encoder>)`: what a terminal reader is told."""
    encoder = encoder_name(router)
    return "lexical" if encoder is None else f"hybrid ({encoder})"
