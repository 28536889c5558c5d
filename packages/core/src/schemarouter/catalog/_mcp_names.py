"""The source name an MCP server gets when none is given: from the command line that starts it
(stdio) or from its URL (HTTP), never from what the server says of itself.

The name is the first half of every route of the server's tools, and the user's own rules
(blocked and always-visible routes, the execution policy's route patterns) are written against
it: it has to be known before the server runs and must not be the server's to choose.

Rule for a command line (`stdio_source_name`):

1. The program is the file name of the command, without its folder and without a `.exe`,
   `.cmd`, `.bat`, `.sh`, `.py`, `.js`, `.mjs`, `.cjs` or `.ts` ending.
2. When the program is a runner (Python, uv, uvx, pipx, node, npx, npm, pnpm, yarn, deno, bun,
   bunx, tsx, docker, podman), the name is what it runs: the module of `-m MODULE`, else its
   first argument that is not an option, after the runner's own subcommand (`run`, `exec`,
   `dlx`, `x`, `tool`) and the values of its options (`--from X`, `-e X`, ...). A script or
   file gives its file name without the ending, a package its name without `@scope/` and
   version, a container image its last path part without its tag.
3. Otherwise, or when the runner's arguments name nothing, the program itself.

Then every `:` (the route separator) and white space become `_`; an empty result is `mcp`.
For a URL (`http_source_name`) the name is its host name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

__all__ = ["http_source_name", "stdio_source_name"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_ENDINGS = (".exe", ".cmd", ".bat", ".sh", ".py", ".js", ".mjs", ".cjs", ".ts")
_PYTHON = re.compile(r"(python|pypy)[0-9.]*w?|py", re.IGNORECASE)
_SUBCOMMANDS = frozenset({"run", "exec", "dlx", "x", "tool"})
_FAMILIES = {
    **dict.fromkeys(["uv", "uvx", "pipx"], "uv"),
    **dict.fromkeys(
        ["node", "npx", "npm", "pnpm", "pnpx", "yarn", "deno", "bun", "bunx", "tsx", "ts-node"], "node"
    ),
    **dict.fromkeys(["docker", "podman"], "container"),
}
"""Runners by family: the families differ in the options that take a value."""
_VALUE_OPTIONS = {
    "python": _words("-W -X --check-hash-based-pycs"),
    "uv": _words(
        """--from --with --with-editable --with-requirements --python -p --directory --project
        --package --env-file --index --default-index --index-url --extra-index-url --find-links -f
        --cache-dir --config-file --group --extra --spec"""
    ),
    "node": _words(
        "-p --package --prefix --registry --cache --workspace -w -r --require --import --loader --env-file"
    ),
    "container": _words(
        """-e --env --env-file -v --volume --name -p --publish --network --net --mount -w --workdir
        -u --user --entrypoint --platform -l --label -h --hostname --add-host --cpus -m --memory
        --pull --runtime --device --cap-add --cap-drop --security-opt --ulimit --log-driver
        --restart --gpus --tmpfs --shm-size --dns"""
    ),
}


def _program(path: str) -> str:
    name = path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
    lowered = name.lower()
    for ending in _ENDINGS:
        if lowered.endswith(ending) and len(name) > len(ending):
            return name[: -len(ending)]
    return name


def _package(spec: str, family: str) -> str:
    """The name of what a runner's argument names: a file, a package or a container image."""
    if family == "container":
        image = spec.rsplit("/", 1)[-1]
        return image.split("@", 1)[0].split(":", 1)[0]
    if not spec.startswith("@") and ("/" in spec or "\\" in spec or spec.lower().endswith(_ENDINGS)):
        return _program(spec)  # a file path
    name = spec.rsplit("/", 1)[-1] if spec.startswith("@") else spec  # '@scope/name@1.2' -> 'name@1.2'
    return re.split(r"@|==|>=|<=|~=|!=|\[", name, maxsplit=1)[0]


def _run_target(family: str, args: Sequence[str]) -> str | None:
    """What a runner runs, named as `_package` names it; None when its arguments name nothing."""
    takes_value = _VALUE_OPTIONS[family]
    modules = ("-m", "--module") if family in ("python", "uv") else ()
    skip_next = False
    for position, arg in enumerate(args):
        if skip_next:
            skip_next = False
        elif arg in modules:
            return args[position + 1] if position + 1 < len(args) else None
        elif family == "python" and arg.startswith("-m"):
            return arg[2:]  # '-mserver'
        elif family == "python" and arg.startswith("-c"):
            return None  # the program is on the command line itself
        elif arg.startswith("-"):
            skip_next = arg in takes_value
        elif family == "python" or arg not in _SUBCOMMANDS:
            return _package(arg, family)
    return None


def stdio_source_name(command: str, args: Sequence[str] = ()) -> str:
    """The default source name of the MCP server started by `command args...` (see the module
    docstring for the rule): `python -m mcp_server_time --local-timezone Europe/Paris` gives
    `mcp_server_time`, `npx -y @modelcontextprotocol/server-filesystem /tmp` gives
    `server-filesystem`, `python server.py` gives `server`, `sleep 100` gives `sleep`."""
    program = _program(command)
    lowered = program.lower()
    family = "python" if _PYTHON.fullmatch(lowered) else _FAMILIES.get(lowered)
    target = _run_target(family, args) if family is not None else None
    return _clean(target or program)


def http_source_name(url: str) -> str:
    """The default source name of the MCP server at `url`: its host name."""
    return _clean(urlsplit(url).hostname or "")


def _clean(name: str) -> str:
    return re.sub(r"[:\s]", "_", name) or "mcp"
