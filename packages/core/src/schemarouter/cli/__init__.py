"""The `schemarouter` command line. Exit codes: 0 ok, 1 runtime failure, 2 misuse.

Subcommands: `catalog`, `route`, `calibrate`, `demo`, `snapshot`; each in its own `_<name>_cmd` module.
`-v` / `--verbose` (before or after the subcommand) prints what SchemaRouter's loggers say at
INFO on stderr, `-vv` at DEBUG; without it only their warnings are printed.

Floor 9 (the top): imports anything below it; nothing imports it.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import logging
import sys
import time
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import Any

from .. import __version__
from ..errors import SchemaRouterError, UserError
from . import _calibrate_cmd, _catalog_cmd, _demo_cmd, _route_cmd, _snapshot_cmd
from ._common import add_verbose_argument, printable, stderr

__all__ = ["build_parser", "main"]

_COMMANDS = (_catalog_cmd, _demo_cmd, _route_cmd, _calibrate_cmd, _snapshot_cmd)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="schemarouter",
        description="Per-request tool allow-sets for agents that see many tools.",
        epilog="`schemarouter COMMAND --help` describes a command and gives an example.",
    )
    parser.add_argument("--version", action="version", version=f"schemarouter {__version__}")
    add_verbose_argument(parser, default=0)
    # not `required`: without a command, `main` prints the help, which lists the commands
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in _COMMANDS:
        module.register(subparsers)
    return parser


_LEVELS = {0: logging.WARNING, 1: logging.INFO}


class _LogLine(logging.Handler):
    """Library log records as one line on stderr, in the command's own words: warnings always,
    INFO with `-v`, DEBUG with `-vv` (those name their logger and the seconds since the start)."""

    def __init__(self, command: str, level: int) -> None:
        super().__init__(level)
        self.command = command
        self.started = time.monotonic()

    def emit(self, record: logging.LogRecord) -> None:
        message = printable(record.getMessage(), keep_newlines=True)
        if record.levelno >= logging.WARNING:
            line = f"schemarouter {self.command}: warning: {message}"
        else:
            elapsed = time.monotonic() - self.started
            level = "info" if record.levelno >= logging.INFO else "debug"
            line = f"schemarouter {self.command}: {level} [{elapsed:5.2f} s {record.name}]: {message}"
        stderr.print(line, markup=False)


@contextmanager
def _logs_on_stderr(command: str, verbose: int) -> Generator[None]:
    """While the command runs, SchemaRouter's warnings (a rule naming no tool, ...) are printed
    as `schemarouter COMMAND: warning: ...`, with `-v` its INFO lines too (`-vv`: DEBUG), and
    none is passed on to the root logger."""
    log = logging.getLogger("schemarouter")
    level = _LEVELS.get(verbose, logging.DEBUG)
    handler, propagate, before = _LogLine(command, level), log.propagate, log.level
    log.addHandler(handler)
    log.propagate = False
    if verbose:
        log.setLevel(level)
    try:
        yield
    finally:
        log.removeHandler(handler)
        log.propagate = propagate
        log.setLevel(before)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:  # `schemarouter` alone: what it can do, as misuse (exit 2)
        parser.print_help(sys.stderr)
        return 2
    try:
        with _logs_on_stderr(args.command, args.verbose):
            outcome: Any = args.handler(args)
            if inspect.iscoroutine(outcome):
                outcome = asyncio.run(outcome)
        return int(outcome or 0)
    except UserError as exc:
        stderr.print(f"schemarouter {args.command}: error: {printable(str(exc), keep_newlines=True)}")
        return 2
    except SchemaRouterError as exc:
        stderr.print(f"schemarouter {args.command}: failed: {printable(str(exc), keep_newlines=True)}")
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
