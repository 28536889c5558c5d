"""JSON Schema checks with a budget: arguments before a call, structured content after it.

A tool's schema comes from its server, and a check of a small argument against it can cost
without bound: references that multiply (the catalog skips schemas that reach more than
`MAX_SCHEMA_EXPANSION` subschemas, but a recursive schema still follows the arguments down), or
a `pattern` whose regular expression backtracks exponentially (`^(a|aa)+$` against 41 `a`s and
a `b` takes Python's `re` tens of seconds). So every check here has a budget, `CheckBudget`:

- Steps: each keyword the validator evaluates, and each schema object the search for
  unevaluated properties enters, spends one; past `max_steps` the check stops.
- Seconds: CPU seconds of the thread that runs the check; the clock is read every few dozen
  steps, and a regular expression is given what is left as its own timeout.
- Regular expressions (`pattern`, `patternProperties`, and through them `additionalProperties`
  and `unevaluatedProperties`) run on the `regex` engine, which stops at a timeout and lets
  other threads run while it matches; Python's `re` can do neither.

A check over budget raises `CheckTooCostly`; the caller turns it into a refusal (arguments) or
a rejected answer (structured content). The checks are synchronous: callers run them in a
worker thread (`anyio.to_thread`), so the event loop keeps running while they work.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

import regex
from jsonschema import Draft202012Validator, ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend  # pyright: ignore[reportUnknownVariableType]

from ..catalog._schema_checks import argument_validator

__all__ = [
    "ARGUMENT_CHECK_STEPS",
    "CheckBudget",
    "CheckTooCostly",
    "PatternError",
    "budgeted",
    "budgeted_validator",
]

ARGUMENT_CHECK_STEPS = 250_000
"""Keyword evaluations one check (a call's arguments, or a tool's structured content) may make
at most. A typical tool's arguments take under a hundred, and 10,000 rows of three fields about
60,000. Validation makes 50,000 to 300,000 steps a second, so on a slow machine the time budget
(`ExecutionPolicy.schema_check_seconds`) ends a runaway check first; on a fast one the step
count does, and its verdict is then the same whatever the machine's load."""

_CLOCK_EVERY = 64
"""Steps between two readings of the thread's CPU clock."""

_T = TypeVar("_T")


class CheckTooCostly(Exception):
    """A check ran out of its budget; `spent` says which part."""

    def __init__(self, spent: str) -> None:
        super().__init__(spent)
        self.spent = spent


class PatternError(Exception):
    """A schema's regular expression cannot be evaluated (the engine does not accept it)."""


@dataclass(slots=True)
class CheckBudget:
    """What one check may spend: `seconds` of its thread's CPU time and `max_steps` steps."""

    seconds: float
    max_steps: int = ARGUMENT_CHECK_STEPS
    steps: int = 0
    deadline: float = field(default=0.0, init=False)

    def start(self) -> None:
        self.steps = 0
        self.deadline = time.thread_time() + self.seconds

    def spend(self) -> None:
        self.steps += 1
        if self.steps > self.max_steps:
            raise CheckTooCostly(f"more than {self.max_steps:,} steps")
        if self.steps % _CLOCK_EVERY == 0 and time.thread_time() > self.deadline:
            raise CheckTooCostly(f"more than {self.seconds:g} s")

    def seconds_left(self) -> float:
        left = self.deadline - time.thread_time()
        if left <= 0:
            raise CheckTooCostly(f"more than {self.seconds:g} s")
        return left


_running = threading.local()


def _budget() -> CheckBudget | None:
    found: CheckBudget | None = getattr(_running, "budget", None)
    return found


def _spend() -> None:
    budget = _budget()
    if budget is not None:
        budget.spend()


def budgeted(budget: CheckBudget, check: Callable[[], _T]) -> _T:
    """Run `check` in this thread under `budget`: every budgeted validator it uses spends from
    it, and it raises `CheckTooCostly` once the budget is spent."""
    outer = _budget()
    _running.budget = budget
    budget.start()
    try:
        return check()
    finally:
        _running.budget = outer


@functools.lru_cache(maxsize=512)
def _compiled(pattern: str) -> regex.Pattern[str]:
    try:
        return regex.compile(pattern)
    except (regex.error, ValueError, OverflowError) as exc:
        raise PatternError(f"the pattern {pattern!r} cannot be evaluated: {exc}") from exc


def _search(pattern: str, text: str) -> bool:
    """Does `pattern` match somewhere in `text` (JSON Schema's reading of `pattern`)?"""
    compiled = _compiled(pattern)
    budget = _budget()
    timeout = budget.seconds_left() if budget is not None else None
    try:
        return compiled.search(text, timeout=timeout, concurrent=True) is not None
    except TimeoutError as exc:
        seconds = budget.seconds if budget is not None else 0.0
        raise CheckTooCostly(f"more than {seconds:g} s in the pattern {pattern!r}") from exc


# -- keywords ------------------------------------------------------------------------------------
# Keyword functions take (validator, the keyword's value, the instance, the schema object) and
# yield ValidationErrors, as jsonschema calls them.

Keyword = Callable[[Any, Any, Any, Any], Iterator[ValidationError] | None]


def _counted(keyword: Keyword) -> Keyword:
    def spend_then(
        validator: Any, value: Any, instance: Any, schema: Any
    ) -> Iterator[ValidationError] | None:
        _spend()
        return keyword(validator, value, instance, schema)

    return spend_then


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if validator.is_type(instance, "string") and not _search(pattern, instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties(
    validator: Any, patterns: Mapping[str, Any], instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if _search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _undeclared(instance: Mapping[str, Any], schema: Mapping[str, Any]) -> list[str]:
    """The keys of `instance` that neither `properties` nor `patternProperties` of `schema` cover."""
    declared: Any = schema.get("properties", {})
    patterns: Any = schema.get("patternProperties", {})
    return [key for key in instance if key not in declared and not any(_search(p, key) for p in patterns)]


def _additional_properties(
    validator: Any, additional: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    extras = _undeclared(instance, schema)
    if validator.is_type(additional, "object"):
        for key in extras:
            yield from validator.descend(instance[key], additional, path=key)
    elif additional is False and extras:
        listed = ", ".join(repr(key) for key in extras)
        verb = "was" if len(extras) == 1 else "were"
        yield ValidationError(f"Additional properties are not allowed ({listed} {verb} unexpected)")


def _valid(validator: Any, subschema: Any, instance: Any) -> bool:
    valid: bool = validator.evolve(schema=subschema).is_valid(instance)
    return valid


def _evaluated_keys(validator: Any, instance: Mapping[str, Any], schema: Any, *, own: bool) -> set[str]:
    """The keys of `instance` that `schema` evaluates (properties, patternProperties,
    additionalProperties, and the subschemas applied in place: references, allOf, the passing
    branches of anyOf and oneOf, if/then/else, dependentSchemas). `own` leaves out the schema's
    own `unevaluatedProperties`, which is what the keys are counted for."""
    _spend()
    if not isinstance(schema, Mapping):
        return set()
    here = cast("Mapping[str, Any]", schema)
    keys: set[str] = set()
    for keyword in ("$ref", "$dynamicRef"):
        ref = here.get(keyword)
        if isinstance(ref, str):
            resolved = validator._resolver.lookup(ref)
            target = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
            keys |= _evaluated_keys(target, instance, resolved.contents, own=False)
    declared = here.get("properties")
    if isinstance(declared, Mapping):
        keys.update(key for key in instance if key in declared)
    patterns: Any = here.get("patternProperties")
    if isinstance(patterns, Mapping):
        names = cast("Mapping[str, Any]", patterns)
        keys.update(key for key in instance if any(_search(p, key) for p in names))
    if "additionalProperties" in here:
        additional = here["additionalProperties"]
        keys.update(k for k in _undeclared(instance, here) if _valid(validator, additional, instance[k]))
    if not own and "unevaluatedProperties" in here:
        unevaluated = here["unevaluatedProperties"]
        keys.update(k for k, v in instance.items() if _valid(validator, unevaluated, v))
    dependent: Any = here.get("dependentSchemas")
    if isinstance(dependent, Mapping):
        for name, subschema in cast("Mapping[str, Any]", dependent).items():
            if name in instance:
                keys |= _evaluated_keys(validator.evolve(schema=subschema), instance, subschema, own=False)
    for keyword in ("allOf", "anyOf", "oneOf"):
        branches = here.get(keyword)
        if not isinstance(branches, list):
            continue
        for branch in cast("list[Any]", branches):
            if keyword == "allOf" or _valid(validator, branch, instance):
                keys |= _evaluated_keys(validator.evolve(schema=branch), instance, branch, own=False)
    if "if" in here:
        taken = ("if", "then") if _valid(validator, here["if"], instance) else ("else",)
        for keyword in taken:
            if keyword in here:
                branch = here[keyword]
                keys |= _evaluated_keys(validator.evolve(schema=branch), instance, branch, own=False)
    return keys


def _unevaluated_properties(
    validator: Any, unevaluated: Any, instance: Any, schema: Any
) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    evaluated = _evaluated_keys(validator, instance, schema, own=True)
    rest = [key for key in instance if key not in evaluated]
    if unevaluated is False:
        if rest:
            listed = ", ".join(repr(key) for key in rest)
            verb = "was" if len(rest) == 1 else "were"
            yield ValidationError(f"Unevaluated properties are not allowed ({listed} {verb} unexpected)")
        return
    for key in rest:
        yield from validator.descend(instance[key], unevaluated, path=key)


_OWN: dict[str, Keyword] = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "unevaluatedProperties": _unevaluated_properties,
}

_KEYWORDS: dict[str, Keyword] = {
    name: _counted(_OWN.get(name, keyword))
    for name, keyword in cast("Mapping[str, Keyword]", Draft202012Validator.VALIDATORS).items()
}

_BudgetedValidator = cast("type[Validator]", extend(Draft202012Validator, validators=_KEYWORDS))


def budgeted_validator(schema: Mapping[str, Any]) -> Validator:
    """A Draft 2020-12 validator for `schema` that resolves references within the schema only
    (see `argument_validator`), spends from the running `budgeted` check's budget, and evaluates
    regular expressions with the `regex` engine."""
    return argument_validator(schema, _BudgetedValidator)
