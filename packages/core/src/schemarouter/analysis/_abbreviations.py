"""Abbreviations common in tool identifiers, and the word each stands for.

Tool names are written by programmers (`exec_cmd`, `get_repo_info`, `send_msg`); requests are
written by people, who spell the words out ("run this command", "which repository"), and the
other way round ("my db" for a tool named `query_database`). The index adds the spelled-out
word beside an abbreviation found in a tool's name, title or parameter names, and a request's
abbreviation also matches the spelled-out word.

Only abbreviations with one usual reading in tool names are listed: `temp` (temperature or
temporary), `res` (result, response or resource), `desc` (description or descending), `min`
(minimum or minutes), `cal` (calendar or calories), `proc` (process or procedure) and `log` (a
word in its own right) are left out. Abbreviations people write as words of their
own (`api`, `url`, `id`) are left out too: they already match as they are.
"""

from __future__ import annotations

from types import MappingProxyType

__all__ = ["ABBREVIATIONS"]

ABBREVIATIONS = MappingProxyType(
    {
        "acct": "account",
        "addr": "address",
        "amt": "amount",
        "arg": "argument",
        "args": "arguments",
        "attr": "attribute",
        "attrs": "attributes",
        "auth": "authentication",
        "avg": "average",
        "btn": "button",
        "calc": "calculate",
        "cfg": "configuration",
        "cmd": "command",
        "cmds": "commands",
        "config": "configuration",
        "ctx": "context",
        "db": "database",
        "del": "delete",
        "dest": "destination",
        "dir": "directory",
        "dirs": "directories",
        "doc": "document",
        "docs": "documents",
        "dst": "destination",
        "env": "environment",
        "err": "error",
        "exec": "execute",
        "fn": "function",
        "func": "function",
        "img": "image",
        "imgs": "images",
        "info": "information",
        "init": "initialize",
        "lang": "language",
        "lib": "library",
        "loc": "location",
        "max": "maximum",
        "mem": "memory",
        "msg": "message",
        "msgs": "messages",
        "nav": "navigation",
        "num": "number",
        "org": "organization",
        "param": "parameter",
        "params": "parameters",
        "pkg": "package",
        "pref": "preference",
        "prefs": "preferences",
        "qty": "quantity",
        "repo": "repository",
        "repos": "repositories",
        "req": "request",
        "resp": "response",
        "src": "source",
        "stats": "statistics",
        "sys": "system",
        "tmp": "temporary",
        "ts": "timestamp",
        "tx": "transaction",
        "txn": "transaction",
        "tz": "timezone",
        "usr": "user",
        "vid": "video",
        "vids": "videos",
    }
)
"""Abbreviation (lower case, as tokenised) -> the word it stands for."""
