"""The `schemarouter` command line. Exit codes: 0 ok, 1 runtime failure, 2 misuse.

Subcommands: `catalog`, `route`, `calibrate`, `demo`; each in its own `_<name>_cmd` module.

Floor 9 (the top): imports anything below it; nothing imports it.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import logging
import sys
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import Any

from ..errors import SchemaRouterError, UserError
from . import _calibrate_cmd, _catalog_cmd, _demo_cmd, _route_cmd
from ._common import stderr

__all__ = ["build_parser", "main"]

_COMMANDS = (_catalog_cmd, _demo_cmd, _route_cmd, _calibrate_cmd)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schemarouter", description="Per-request tool allow-sets for agents that see many tools."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in _COMMANDS:
        module.register(subparsers)
    return parser


class _WarningLine(logging.Handler):
    """Library warnings as one line on stderr, in the command's own words."""

    def __init__(self, command: str) -> None:
        super().__init__(logging.WARNING)
        self.command = command

    def emit(self, record: logging.LogRecord) -> None:
        stderr.print(f"schemarouter {self.command}: warning: {record.getMessage()}", markup=False)


@contextmanager
def _warnings_on_stderr(command: str) -> Generator[None]:
    """While the command runs, SchemaRouter's warnings (a rule naming no tool, ...) are printed
    as `schemarouter COMMAND: warning: ...` and not passed on to the root logger."""
    log = logging.getLogger("schemarouter")
    handler, propagate = _WarningLine(command), log.propagate
    log.addHandler(handler)
    log.propagate = False
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.propagate = propagate


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with _warnings_on_stderr(args.command):
            outcome: Any = args.handler(args)
            if inspect.iscoroutine(outcome):
                outcome = asyncio.run(outcome)
        return int(outcome or 0)
    except UserError as exc:
        stderr.print(f"schemarouter {args.command}: error: {exc}", markup=False)
        return 2
    except SchemaRouterError as exc:
        stderr.print(f"schemarouter {args.command}: failed: {exc}", markup=False)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
