"""`schemarouter snapshot`: build a router snapshot once (`build`), check one before a fleet
starts from it (`check`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from ..snapshot._file import writable_target
from ..snapshot._router_snapshot import SnapshotInfo, check_snapshot, save_snapshot
from ._common import (
    add_semantic_argument,
    add_source_arguments,
    add_verbose_argument,
    count,
    emit_json,
    human_size,
    load_router,
    print_skipped,
    printable,
    stdout,
)

__all__ = ["EXAMPLE", "register"]

EXAMPLE = (
    "examples (the fixture server that ships with schemarouter-conformance):\n"
    '  schemarouter snapshot build --stdio "python -m schemarouter_conformance.fixture_server" '
    "--name fixture --out tools.snapshot\n"
    "  schemarouter snapshot check tools.snapshot"
)


def _info_json(info: SnapshotInfo, seconds: float) -> dict[str, Any]:
    return {
        "path": info.path,
        "size_bytes": info.size_bytes,
        "library": info.library,
        "catalog_version": info.catalog_version,
        "tools": info.tools,
        "skipped": info.skipped,
        "mode": info.mode,
        "encoder": info.encoder,
        "listed_at": info.listed_at,
        "seconds": round(seconds, 4),
    }


def _print(info: SnapshotInfo, verb: str, seconds: float) -> None:
    mode = info.mode if info.encoder is None else f"{info.mode} ({info.encoder})"
    stdout.print(
        f"{verb} {printable(info.path)} in {seconds:.2f} s: {count(info.tools, 'tool')} "
        f"({info.skipped} skipped), catalog {info.catalog_version[:12]}, {mode}, "
        f"{human_size(info.size_bytes)}, {printable(info.library)}",
        soft_wrap=True,  # one line, whatever the width: scripts read it
    )


async def run_build(args: argparse.Namespace) -> int:
    writable_target(args.out)  # before any server is started or listed
    started = time.perf_counter()
    router = await load_router(args)
    info = save_snapshot(router, args.out)
    seconds = time.perf_counter() - started
    if args.json:
        emit_json(_info_json(info, seconds))
    else:
        _print(info, "wrote", seconds)
    return 0


def run_check(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    # every check a worker's load makes: seal, header, fingerprints, versions, catalog limits
    info, catalog = check_snapshot(args.path)
    seconds = time.perf_counter() - started
    if args.json:
        emit_json(_info_json(info, seconds))
    else:
        _print(info, "loaded", seconds)
        print_skipped(catalog.skipped)
    return 0


def register(subparsers: Any) -> None:
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "snapshot",
        help="save a loaded router to one file, and check such a file",
        description="Build a router from MCP servers or tool-definition files once and save it "
        "(catalog with fingerprints, lexical index, hybrid tool vectors) to one file that worker "
        "processes start from with schemarouter.load_snapshot; or check a snapshot as loading it "
        "does (seal, fingerprints, library and encoder versions). No tool runs.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")

    def without_action(_args: argparse.Namespace) -> int:  # `schemarouter snapshot` alone
        parser.print_help(sys.stderr)
        return 2

    parser.set_defaults(handler=without_action)
    build = actions.add_parser(
        "build",
        help="list the sources, build the router and write the snapshot",
        description="List the sources, build the router (and its tool vectors with --semantic) and "
        "write it to --out, replacing the file whole.",
    )
    add_source_arguments(build)
    add_semantic_argument(build)
    build.add_argument("--out", required=True, type=Path, metavar="FILE", help="the snapshot file to write")
    build.add_argument("--json", action="store_true", help="machine-readable output")
    add_verbose_argument(build)
    build.set_defaults(handler=run_build)
    check = actions.add_parser(
        "check",
        help="load a snapshot as a worker would, and say what it holds",
        description="Load the snapshot with every check a worker's load_snapshot makes; exit 2 "
        "with the reason when it cannot be loaded.",
    )
    check.add_argument("path", type=Path, metavar="FILE", help="the snapshot file")
    check.add_argument("--json", action="store_true", help="machine-readable output")
    add_verbose_argument(check)
    check.set_defaults(handler=run_check)
