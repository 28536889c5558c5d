"""`ExecutionPolicy`: which tools the execution boundary may run, decided by trusted local rules.

A remote server's annotations (`readOnlyHint`, `destructiveHint`) are self-description by
the party being guarded against. They are recorded on the capability and may only make a
decision stricter: a server that calls its tool read-only cannot make a tool the local
rules call destructive executable, and a server that calls its tool destructive makes it
need the same explicit allowance as a locally destructive one.
"""

from __future__ import annotations

import logging
import threading
import time
import weakref
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from types import MappingProxyType
from typing import Literal, get_args

from ..catalog._capability import ROUTE_SEPARATOR, Capability
from ..catalog._catalog import Catalog
from ..errors import UserError

__all__ = ["EFFECT_ORDER", "EffectClass", "ExecutionPolicy", "PolicyDecision", "warn_shared_bare_patterns"]

logger = logging.getLogger("schemarouter.execution")

EffectClass = Literal["read_only", "mutating", "destructive"]
"""What running a tool may do to the world, from least to most severe."""

EFFECT_ORDER: Mapping[EffectClass, int] = MappingProxyType({"read_only": 0, "mutating": 1, "destructive": 2})


def _stricter(a: EffectClass | None, b: EffectClass | None) -> EffectClass | None:
    if a is None:
        return b
    if b is None:
        return a
    return a if EFFECT_ORDER[a] >= EFFECT_ORDER[b] else b


def _patterns(values: Collection[str], what: str) -> tuple[str, ...]:
    if isinstance(values, str):
        raise UserError(f"{what} must be a collection of patterns, not a single string")
    out = tuple(values)
    for pattern in out:
        if not isinstance(pattern, str) or not pattern:  # pyright: ignore[reportUnnecessaryIsInstance]
            raise UserError(f"{what} patterns must be non-empty strings, got {pattern!r}")
    return out


def _is_seconds(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def matches(pattern: str, capability: Capability) -> bool:
    """Glob match (`fnmatch`, case-sensitive): on the route when the pattern names a source
    (`"crm:delete_*"`), else on the tool name (`"delete_*"`)."""
    subject = capability.route if ROUTE_SEPARATOR in pattern else capability.name
    return fnmatchcase(subject, pattern)


@dataclass(frozen=True, slots=True)
class PolicyDecision:
    """The policy's verdict on one tool, with the evidence it used."""

    route: str
    allowed: bool
    effect: EffectClass | None
    """The effect the decision assumed; None when the tool is unclassified and refused for it."""
    local_effect: EffectClass | None
    """What the trusted local rules say (None: no rule matched)."""
    remote_effect: EffectClass | None
    """What the remote annotations imply, if anything; used only to tighten."""
    detail: str


@dataclass(frozen=True, slots=True, weakref_slot=True)
class ExecutionPolicy:
    """Trusted local rules for the execution boundary.

    - `classification`: pattern -> effect class (`"read_only"`, `"mutating"`,
      `"destructive"`). Patterns are globs on the route when they contain `:`, else on
      the tool name. When several match, the most severe effect wins. A bare tool name
      matches that tool on every source: name the source (`"crm:get_*"`) when the catalog
      has more than one (see `shared_bare_patterns`).
    - `allow_unclassified_remote`: may a remote (MCP) tool that no local rule classifies
      run at all? Off by default. When on, such a tool counts as mutating.
    - `allow_unclassified_local`: may a Python callable registered with the router that
      no local rule classifies run at all? On by default: callables are the application's
      own code. When on, such a callable counts as mutating; turned off, `classification`
      is the list of the callables that may run.
    - Remote annotations only tighten: `destructiveHint: true` makes the effect
      destructive, `readOnlyHint: false` makes it at least mutating. Missing hints change
      nothing (classify such tools locally).
    - `allow_mutating`: may mutating tools run? Read-only tools always may.
    - `allow_destructive`: patterns of tools explicitly allowed to run although
      destructive (by local rule or remote hint). Nothing else destructive runs.
    - `deny`: patterns that never run; wins over everything.
    - `plan_ttl`: seconds a plan stays executable after it was issued.
    - `contract_max_age`: when the router's catalog is older than this many seconds, the
      live contract of an MCP tool is listed again, in the session that makes the call,
      and compared with the plan's fingerprint before calling. `0` (default) re-checks
      every time.
    - `clock`: the time source for plan issue, expiry and catalog age (wall-clock
      seconds); replaceable for tests.
    - `schema_check_seconds`: CPU seconds one schema check may take: a call's arguments
      against the tool's input schema (over it: `arguments_check_too_costly`, before any
      call), or an MCP tool's structured content against its output schema (over it: the
      answer is rejected). Checks also stop after `ARGUMENT_CHECK_STEPS` steps.
    """

    classification: Mapping[str, EffectClass] = field(default_factory=lambda: MappingProxyType({}))
    allow_unclassified_remote: bool = False
    allow_unclassified_local: bool = True
    allow_mutating: bool = True
    allow_destructive: Collection[str] = ()
    deny: Collection[str] = ()
    plan_ttl: float = 300.0
    contract_max_age: float = 0.0
    clock: Callable[[], float] = time.time
    schema_check_seconds: float = 1.0

    def __post_init__(self) -> None:
        if isinstance(self.classification, str) or not isinstance(  # pyright: ignore[reportUnnecessaryIsInstance]
            self.classification, Mapping
        ):
            raise UserError("classification must map patterns to effect classes")
        known = get_args(EffectClass)
        rules: dict[str, EffectClass] = {}
        for pattern, effect in self.classification.items():
            _patterns((pattern,), "classification")
            if effect not in known:
                raise UserError(f"classification of {pattern!r}: {effect!r} is not one of {known}")
            rules[pattern] = effect
        object.__setattr__(self, "classification", MappingProxyType(rules))
        object.__setattr__(self, "allow_destructive", _patterns(self.allow_destructive, "allow_destructive"))
        object.__setattr__(self, "deny", _patterns(self.deny, "deny"))
        for name in ("allow_unclassified_remote", "allow_unclassified_local", "allow_mutating"):
            value: object = getattr(self, name)
            if not isinstance(value, bool):
                # A truthy non-bool (the string "false", say) must not silently widen what may run.
                raise UserError(f"{name} must be True or False, got {value!r}")
        if not _is_seconds(self.plan_ttl) or not self.plan_ttl > 0:
            raise UserError(f"plan_ttl must be a positive number of seconds, got {self.plan_ttl!r}")
        if not _is_seconds(self.contract_max_age) or not self.contract_max_age >= 0:
            raise UserError(f"contract_max_age must be >= 0 seconds, got {self.contract_max_age!r}")
        if not callable(self.clock):
            raise UserError(f"clock must be a callable returning seconds, got {self.clock!r}")
        if not _is_seconds(self.schema_check_seconds) or not 0 < self.schema_check_seconds < 3600:
            raise UserError(
                f"schema_check_seconds must be a positive number of seconds under an hour, "
                f"got {self.schema_check_seconds!r}"
            )

    def shared_bare_patterns(self, catalog: Catalog) -> dict[str, tuple[str, ...]]:
        """The patterns of `classification` and `allow_destructive` that name no source and
        match tools of more than one source of `catalog`, each with those sources (sorted).

        Such a pattern lets a tool of the same name on any other server run as the rule says:
        `allow_destructive=["delete_customer"]` allows `shadow:delete_customer` as well as
        `crm:delete_customer`. (`deny` patterns are left out: matching more only refuses more.)"""
        shared: dict[str, tuple[str, ...]] = {}
        for pattern in dict.fromkeys((*self.classification, *self.allow_destructive)):
            if ROUTE_SEPARATOR in pattern:
                continue
            sources = sorted({cap.source for cap in catalog if fnmatchcase(cap.name, pattern)})
            if len(sources) > 1:
                shared[pattern] = tuple(sources)
        return shared

    def local_effect(self, capability: Capability) -> EffectClass | None:
        """The most severe effect among the local rules matching this tool (None: unclassified)."""
        effect: EffectClass | None = None
        for pattern, rule_effect in self.classification.items():
            if matches(pattern, capability):
                effect = _stricter(effect, rule_effect)
        return effect

    @staticmethod
    def remote_effect(capability: Capability) -> EffectClass | None:
        """What the reported annotations imply, used only to tighten a decision."""
        if capability.hint("destructiveHint") is True:
            return "destructive"
        if capability.hint("readOnlyHint") is False:
            return "mutating"
        return None

    def decide(self, capability: Capability, *, remote: bool) -> PolicyDecision:
        """May this tool run? `remote` is True for tools served by an MCP server, False for
        Python callables registered with the router."""
        route = capability.route
        local = self.local_effect(capability)
        hinted = self.remote_effect(capability) if remote else None

        def verdict(allowed: bool, effect: EffectClass | None, detail: str) -> PolicyDecision:
            return PolicyDecision(route, allowed, effect, local, hinted, detail)

        denied_by = next((p for p in self.deny if matches(p, capability)), None)
        if denied_by is not None:
            return verdict(False, _stricter(local, hinted), f"denied by the local rule {denied_by!r}")
        if local is None and remote and not self.allow_unclassified_remote:
            return verdict(
                False,
                None,
                "no local rule classifies this remote tool and allow_unclassified_remote is off "
                "(remote annotations never grant execution)",
            )
        if local is None and not remote and not self.allow_unclassified_local:
            return verdict(
                False,
                None,
                "no local rule classifies this Python callable and allow_unclassified_local is off "
                "(only classified callables may run)",
            )
        base: EffectClass = local if local is not None else "mutating"
        effect = _stricter(base, hinted)
        assert effect is not None
        source = "local rule" if local is not None else "unclassified default"
        why = f"{effect} ({source}: {base}" + (f"; remote hints: {hinted})" if hinted else ")")
        if effect == "destructive":
            allowed_by = next((p for p in self.allow_destructive if matches(p, capability)), None)
            if allowed_by is None:
                return verdict(False, effect, f"{why}; destructive tools need an allow_destructive rule")
            return verdict(True, effect, f"{why}; explicitly allowed by {allowed_by!r}")
        if effect == "mutating" and not self.allow_mutating:
            return verdict(False, effect, f"{why}; allow_mutating is off")
        return verdict(True, effect, why)


_warned: dict[int, set[str]] = {}
"""Catalog versions each live policy (by id) was already checked against."""
_warned_lock = threading.Lock()


def warn_shared_bare_patterns(policy: ExecutionPolicy, catalog: Catalog) -> None:
    """Log a warning on `schemarouter.execution` for each of `policy.shared_bare_patterns`, once
    per policy and catalog version."""
    key = id(policy)
    with _warned_lock:
        seen = _warned.get(key)
        if seen is None:
            seen = _warned[key] = set()
            weakref.finalize(policy, _warned.pop, key, None)
        if catalog.version in seen:
            return
        seen.add(catalog.version)
    for pattern, sources in policy.shared_bare_patterns(catalog).items():
        logger.warning(
            "ExecutionPolicy pattern %r names no source and matches tools of %d sources (%s): "
            "it applies to each of them; write %s to name one",
            pattern,
            len(sources),
            ", ".join(sources),
            " or ".join(repr(f"{source}{ROUTE_SEPARATOR}{pattern}") for source in sources[:2]),
        )
