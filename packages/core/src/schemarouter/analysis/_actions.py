"""What a request asks to do and what a tool does: its action (list, get, search, create, ...).

One server's tools are often siblings over one object (`key_list`, `key_get`, `key_create`):
words alone cannot tell them apart, since the request names the object and the siblings all
name it too. The action can: "show the keys in the vault" lists, "add a key" creates. Both
ends read an action from a small vocabulary (`ACTION_WORDS`: each action with the verbs that
say it, and their inflections):

- a tool's action comes from the first action word of its name, else of its title, else among
  the first words of its description's first sentence, else from its annotations
  (`readOnlyHint` reads, `destructiveHint` deletes); each source is trusted less than the one
  before (`ActionSource.strength`);
- a request's action is its first action word. "show", "display", "what", "which" ask to see
  something: a list when the request names its object in the plural or says "all" ("show the
  keys"), one thing otherwise ("what time is it").

`agreement(request, tool)` says how well the two fit, from 1 (the same action) through 0
(both read, differently: a list and a get) to -1 (the request reads, the tool writes). Ranking scales
a tool's score by it (`IndexSettings.action_weight`). The vocabulary holds actions, never a
catalog's objects, so it applies to any catalog alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

__all__ = [
    "ACTIONS",
    "ACTION_WORDS",
    "ActionReader",
    "ToolAction",
    "agreement",
]

ACTION_WORDS: dict[str, tuple[str, ...]] = {
    "list": ("list", "enumerate", "browse"),
    "get": (
        "get",
        "fetch",
        "retrieve",
        "read",
        "obtain",
        "lookup",
        "details",
        "info",
        "describe",
        "inspect",
        "check",
        "load",
    ),
    "search": ("search", "find", "query", "locate", "discover", "seek", "explore"),
    "create": (
        "create",
        "add",
        "generate",
        "build",
        "insert",
        "register",
        "write",
        "compose",
        "draft",
    ),
    "update": (
        "update",
        "edit",
        "modify",
        "change",
        "set",
        "rename",
        "patch",
        "configure",
        "replace",
        "mark",
    ),
    "delete": (
        "delete",
        "remove",
        "destroy",
        "drop",
        "erase",
        "purge",
        "clear",
        "cancel",
        "revoke",
        "kill",
        "terminate",
    ),
    "send": ("send", "notify", "publish", "share", "reply", "forward"),
    "convert": ("convert", "transform", "translate", "export", "encode", "decode"),
    "run": ("run", "execute", "exec", "invoke", "launch", "start", "trigger", "evaluate"),
}
"""The actions and the verbs that say them, in their base form; their inflections (`lists`,
`created`, `deleting`) say the same, save for the forms English mostly uses as nouns
(`NOUN_FORMS`). A request may also say "show" (`SHOW_WORDS`)."""

ACTIONS = tuple(ACTION_WORDS)
SHOW_WORDS = ("show", "display", "view", "what", "which")
"""Words of a request that ask to see something: a list or one thing, by the object's number."""
PLURAL_WORDS = ("all", "every", "each")
"""Words that make a request to see something a request for a list."""

NOUN_FORMS = frozenset(
    {
        "setting",
        "settings",
        "listing",
        "listings",
        "building",
        "buildings",
        "finding",
        "findings",
        "drops",
        "checks",
        "changes",
        "draft",
        "drafts",
        "starts",
        "runs",
        "sets",
        "marks",
        "lists",
    }
)
"""Inflected forms read as nouns, not as their verb ("settings" is no request to set)."""
NOT_PLURAL = frozenset({"news", "status", "series", "species", "always", "perhaps", "towards", "sometimes"})
"""Words that end in s without naming many things."""

_READ = frozenset({"list", "get", "search"})
_WRITE = frozenset({"create", "update", "delete"})
_WORD = re.compile(r"[a-z]+")
_MAX_REQUEST_CHARS = 2_000
"""A request's first characters read for its action."""
MAX_REQUEST_WORDS = 64
"""A request's first words read for its action."""
_DESCRIPTION_WORDS = 3
"""How many first words of a description's first sentence may say the tool's action."""


class ToolAction(NamedTuple):
    """A tool's action and how far it is trusted (1 from its name, less from elsewhere)."""

    action: str
    strength: float


_STRENGTH = {"name": 1.0, "title": 1.0, "description": 0.6, "annotations": 0.4}
"""How far an action read from each part of a tool contract is trusted."""


def agreement(request: str, tool: str) -> float:
    """How well a tool's action fits a request's: 1 the same, 0 both read differently (`list`,
    `get`, `search`: no worse than a tool of no known action), -1 the request reads and the tool
    writes (`create`, `update`, `delete`: the one mismatch that would change what the user only
    asked to see), -0.5 otherwise (a request to write met by a tool that reads, or actions of
    other kinds). `read` (a tool annotated read-only) reads."""
    if request == tool:
        return 1.0
    tool_reads = tool in _READ or tool == "read"
    if request in _READ:
        if tool_reads:
            return 0.0
        if tool in _WRITE:
            return -1.0
    return -0.5


def _forms(verb: str) -> set[str]:
    """`verb` and its regular inflections."""
    stem = verb[:-1] if verb.endswith("e") else verb
    third = verb + "es" if verb.endswith(("s", "sh", "ch", "x")) else verb + "s"
    past = verb + "d" if verb.endswith("e") else verb + "ed"
    return {verb, third, past, stem + "ing"} - NOUN_FORMS


class ActionReader:
    """Reads actions from words. Immutable but for a bounded table of words already read."""

    def __init__(self) -> None:
        self._forms: dict[str, str] = {}
        for action, verbs in ACTION_WORDS.items():
            for verb in verbs:
                for form in _forms(verb):
                    self._forms.setdefault(form, action)
        for verb in SHOW_WORDS:
            for form in _forms(verb):
                self._forms.setdefault(form, "show")
        self._words: dict[str, tuple[str | None, bool]] = {}
        self._pieces: dict[str, tuple[str | None, bool]] = {}

    def _word(self, word: str) -> tuple[str | None, bool]:
        """The action a word says (`show` for a word of `SHOW_WORDS`), and whether it names
        things in the plural (or is a word such as "all")."""
        known = self._words.get(word)
        if known is None:
            action = self._forms.get(word)
            plural = word in PLURAL_WORDS or (
                action is None
                and len(word) > 3
                and word.endswith("s")
                and not word.endswith(("ss", "us", "is"))
                and word not in NOT_PLURAL
            )
            known = (action, plural)
            if len(self._words) < 50_000:
                self._words[word] = known
        return known

    def says_action(self, word: str) -> bool:
        """Does `word` (lower case) say an action ("list", "created", "show", "what")?"""
        return word in self._forms

    def first_action(self, words: Iterable[str]) -> str | None:
        """The action of the first action word of `words` (lower case), if any."""
        for word in words:
            action, _ = self._word(word)
            if action is not None and action != "show":
                return action
        return None

    def request(self, text: str) -> str | None:
        """The action `text` asks for, or None when it says none (see the module docstring).
        Only its first `_MAX_REQUEST_CHARS` characters are read."""
        return self.request_words(text[:_MAX_REQUEST_CHARS].split())

    def request_words(self, words: list[str]) -> str | None:
        """`request` of a text already split at white space (its first `MAX_REQUEST_WORDS`)."""
        words = words[:MAX_REQUEST_WORDS]
        for at, raw in enumerate(words):
            action = self._raw(raw)[0]
            if action is None:
                continue
            if action != "show":
                return action
            # "show", "what": a list when a later word names things in the plural
            return "list" if any(self._raw(later) == (None, True) for later in words[at + 1 :]) else "get"
        return None

    def piece(self, raw: str) -> tuple[str | None, bool]:
        """The action a request's whitespace-separated word ("Show", "keys?") says, and whether
        it names things in the plural (see `_word`); not remembered (the caller does)."""
        found = _WORD.findall(raw.lower())
        return self._word(found[0]) if len(found) == 1 else (None, False)

    def _raw(self, raw: str) -> tuple[str | None, bool]:
        """`piece`, remembered."""
        known = self._pieces.get(raw)
        if known is None:
            known = self.piece(raw)
            if len(self._pieces) < 50_000:
                self._pieces[raw] = known
        return known

    def tool(
        self,
        name_words: Iterable[str],
        title: str | None,
        description: str | None,
        annotations: Mapping[str, Any] | None,
    ) -> ToolAction | None:
        """The action a tool performs (see the module docstring), from its name's words (lower
        case, stop-words kept), title, description and annotations; None when none says one."""
        action = self.first_action(name_words)
        if action is not None:
            return ToolAction(action, _STRENGTH["name"])
        if title:
            action = self.first_action(_WORD.findall(title.lower()))
            if action is not None:
                return ToolAction(action, _STRENGTH["title"])
        if description:
            first = re.split(r"[.!?\n]", description.strip(), maxsplit=1)[0]
            action = self.first_action(_WORD.findall(first.lower())[:_DESCRIPTION_WORDS])
            if action is not None:
                return ToolAction(action, _STRENGTH["description"])
        if annotations:
            if annotations.get("destructiveHint") is True and annotations.get("readOnlyHint") is not True:
                return ToolAction("delete", _STRENGTH["annotations"])
            if annotations.get("readOnlyHint") is True:
                return ToolAction("read", _STRENGTH["annotations"])
        return None
